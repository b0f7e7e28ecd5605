package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// parquetFooter is the metadata of a Parquet file, read so that a pass over
// the file holds the decoded metadata of one row group at a time.
//
// A Parquet file is its data, then its metadata (FileMetaData, encoded with
// Thrift's compact protocol), then the metadata's length and "PAR1"
// (https://github.com/apache/parquet-format#file-format). The metadata lists
// every row group with the metadata of each of its column chunks.
// parquet.OpenFile decodes all of it and builds an object for every column
// chunk of every row group, and the *parquet.File keeps them while it is
// open; parquet-go has no call that opens one row group
// (https://github.com/parquet-go/parquet-go/issues/83). So a pass over one
// *parquet.File holds memory in proportion to row groups × columns. Here
// the row groups are only indexed, and each is opened on its own as a file
// of the same bytes up to the metadata, followed by metadata that lists that
// row group alone: a column chunk's metadata gives the offsets of its pages
// in the file, so they hold in both.
type parquetFooter struct {
	r io.ReaderAt
	// start is where the metadata begins: the end of the data.
	start int64
	// meta is the file's metadata with an empty list of row groups.
	meta format.FileMetaData
	// bounds[i] and bounds[i+1] are where row group i's metadata begins
	// and ends, as offsets from start.
	bounds rowGroupBounds
}

// parquetFooterIndex is FileMetaData as readParquetFooter decodes it: the
// row groups are indexed, not decoded, and the fields that only encrypted
// files use (8 and 9) are skipped, as they are for a reader without keys.
type parquetFooterIndex struct {
	Version          int32                              `thrift:"1,required"`
	Schema           thrift.Slice[format.SchemaElement] `thrift:"2,required"`
	NumRows          int64                              `thrift:"3,required"`
	RowGroups        rowGroupBounds                     `thrift:"4,required"`
	KeyValueMetadata thrift.Slice[format.KeyValue]      `thrift:"5,optional"`
	CreatedBy        string                             `thrift:"6,optional"`
	ColumnOrders     thrift.Slice[format.ColumnOrder]   `thrift:"7,optional"`
}

// readParquetFooter reads the metadata of the Parquet file in r, refusing
// metadata larger than maxParquetFooter before decoding it. It checks what
// parquet.OpenFile checks of the row groups: no negative row counts, and
// ordinals (RowGroup.ordinal) either all absent or each the row group's
// position.
func readParquetFooter(r io.ReaderAt, size int64) (*parquetFooter, error) {
	start, n, err := parquetFooterSpan(r, size)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if k, err := r.ReadAt(buf, start); k < len(buf) {
		return nil, notParquet(fmt.Errorf("reading the metadata: %w", err))
	}
	var index parquetFooterIndex
	protocol := &thrift.CompactProtocol{}
	pr := protocol.NewReaderFromBytes(buf)
	if err := thrift.NewDecoder(pr).Decode(&index); err != nil {
		return nil, notParquet(fmt.Errorf("reading parquet file metadata: %w", err))
	}
	if k := pr.BytesRead(); k != len(buf) {
		return nil, notParquet(fmt.Errorf("reading parquet file metadata: %d bytes follow it", len(buf)-k))
	}
	if len(index.Schema) == 0 {
		return nil, notParquet(parquet.ErrMissingRootColumn)
	}
	if index.NumRows < 0 {
		return nil, notParquet(fmt.Errorf("invalid file metadata: num_rows=%d is negative", index.NumRows))
	}
	// The decoded strings point into buf; encoding the metadata without its
	// row groups and decoding that copies them out, so buf is not kept.
	meta, err := thrift.Marshal(protocol, &format.FileMetaData{
		Version: index.Version, Schema: index.Schema, NumRows: index.NumRows,
		RowGroups: thrift.Slice[format.RowGroup]{}, KeyValueMetadata: index.KeyValueMetadata,
		CreatedBy: index.CreatedBy, ColumnOrders: index.ColumnOrders,
	})
	if err != nil {
		return nil, notParquet(err)
	}
	f := &parquetFooter{r: r, start: start, bounds: index.RowGroups}
	if err := thrift.Unmarshal(protocol, meta, &f.meta); err != nil {
		return nil, notParquet(err)
	}
	return f, nil
}

// parquetFooterSpan returns where the metadata of the Parquet file in r
// begins and its length, refusing metadata larger than maxParquetFooter.
func parquetFooterSpan(r io.ReaderAt, size int64) (start, n int64, err error) {
	// A Parquet file begins with "PAR1" and ends with the metadata length
	// (4 bytes, little endian) and "PAR1".
	var tail [8]byte
	if size < 12 {
		return 0, 0, notParquet(fmt.Errorf("%d bytes is too short", size))
	}
	if _, err := r.ReadAt(tail[:], size-int64(len(tail))); err != nil && err != io.EOF {
		return 0, 0, notParquet(err)
	}
	if string(tail[4:]) != "PAR1" {
		return 0, 0, notParquet(fmt.Errorf("invalid magic footer of parquet file: %q", tail[4:]))
	}
	n = int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > maxParquetFooter {
		return 0, 0, &ValidationError{Code: CodeDatasetUnreadable,
			Message: fmt.Sprintf("the Parquet metadata is %d bytes, more than the limit of %d; write the file with fewer row groups", n, maxParquetFooter)}
	}
	start = size - 8 - n
	if start < 4 {
		return 0, 0, notParquet(fmt.Errorf("the metadata length %d does not fit in %d bytes", n, size))
	}
	return start, n, nil
}

// groups is the number of row groups.
func (f *parquetFooter) groups() int { return len(f.bounds) - 1 }

// schemaFile opens the file with no row groups: its schema and row count.
func (f *parquetFooter) schemaFile() (*parquet.File, error) {
	return f.open(f.meta)
}

// groupFile opens row group i alone.
func (f *parquetFooter) groupFile(i int) (*parquet.File, error) {
	b := make([]byte, f.bounds[i+1]-f.bounds[i])
	if k, err := f.r.ReadAt(b, f.start+int64(f.bounds[i])); k < len(b) {
		return nil, notParquet(fmt.Errorf("reading the metadata of row group %d: %w", i, err))
	}
	var group format.RowGroup
	pr := (&thrift.CompactProtocol{}).NewReaderFromBytes(b)
	if err := thrift.NewDecoder(pr).Decode(&group); err != nil {
		return nil, notParquet(fmt.Errorf("reading the metadata of row group %d: %w", i, err))
	}
	// The ordinals were checked by readParquetFooter; alone, the row group
	// is the first.
	group.Ordinal = 0
	meta := f.meta
	meta.NumRows = group.NumRows
	meta.RowGroups = thrift.Slice[format.RowGroup]{group}
	return f.open(meta)
}

// open opens the file's data followed by meta, with parquet.OpenFile's
// checks, skipping the page indexes and Bloom filters, which profiling
// does not use.
func (f *parquetFooter) open(meta format.FileMetaData) (*parquet.File, error) {
	tail, err := thrift.Marshal(&thrift.CompactProtocol{}, &meta)
	if err != nil {
		return nil, notParquet(err)
	}
	tail = binary.LittleEndian.AppendUint32(tail, uint32(len(tail)))
	tail = append(tail, "PAR1"...)
	file, err := parquet.OpenFile(&splicedFile{r: f.r, n: f.start, tail: tail}, f.start+int64(len(tail)),
		parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, notParquet(err)
	}
	return file, nil
}

// splicedFile is the first n bytes of r followed by tail.
type splicedFile struct {
	r    io.ReaderAt
	n    int64
	tail []byte
}

func (s *splicedFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	read := 0
	if off < s.n {
		m := int(min(int64(len(p)), s.n-off))
		k, err := s.r.ReadAt(p[:m], off)
		read += k
		if k < m {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return read, err
		}
		p, off = p[m:], off+int64(m)
	}
	if len(p) == 0 {
		return read, nil
	}
	if off-s.n >= int64(len(s.tail)) {
		return read, io.EOF
	}
	k := copy(p, s.tail[off-s.n:])
	read += k
	if k < len(p) {
		return read, io.EOF
	}
	return read, nil
}

// rowGroupBounds is the row_groups list of FileMetaData, decoded only as
// far as where each row group's metadata lies: list elements follow one
// another, so n row groups have n+1 bounds. Offsets fit in 32 bits because
// the metadata is at most maxParquetFooter bytes. It implements
// thrift.Value so parquet-go's decoder hands it the list.
type rowGroupBounds []uint32

// rowGroupHead is what indexing decodes of a RowGroup; the decoder skips
// the other fields, the column chunks among them.
type rowGroupHead struct {
	NumRows int64 `thrift:"3,required"`
	Ordinal int16 `thrift:"7,optional"`
}

func (rowGroupBounds) Type() thrift.Type { return thrift.LIST }

func (rowGroupBounds) NullFunc() thrift.NullFunc {
	return func(v reflect.Value) bool { return v.IsNil() }
}

func (rowGroupBounds) EncodeFunc(thrift.EncodeFuncCache) thrift.EncodeFunc {
	return func(thrift.Writer, reflect.Value, thrift.Flags) error {
		return errors.New("row group bounds cannot be encoded")
	}
}

func (rowGroupBounds) DecodeFunc(cache thrift.DecodeFuncCache) thrift.DecodeFunc {
	decodeHead := thrift.DecodeFuncFor[rowGroupHead](cache)
	return func(r thrift.Reader, v reflect.Value, flags thrift.Flags) error {
		list, err := r.ReadList()
		if err != nil {
			return err
		}
		if list.Size > 0 && list.Type != thrift.STRUCT {
			return fmt.Errorf("row groups: a list of %s, not of structs", list.Type)
		}
		// The size is not trusted for an allocation: the list ends
		// where the metadata does.
		bounds := rowGroupBounds{uint32(r.BytesRead())}
		explicit, misplaced := false, -1
		for i := range int(list.Size) {
			var head rowGroupHead
			if err := decodeHead(r, reflect.ValueOf(&head).Elem(), flags); err != nil {
				return fmt.Errorf("row group %d: %w", i, err)
			}
			if head.NumRows < 0 {
				return fmt.Errorf("invalid file metadata: row group %d num_rows=%d is negative", i, head.NumRows)
			}
			explicit = explicit || head.Ordinal != 0
			if misplaced < 0 && int(head.Ordinal) != i {
				misplaced = i
			}
			bounds = append(bounds, uint32(r.BytesRead()))
		}
		if explicit && misplaced >= 0 {
			return fmt.Errorf("row group ordinal at index %d does not match its position", misplaced)
		}
		v.Set(reflect.ValueOf(bounds))
		return nil
	}
}
