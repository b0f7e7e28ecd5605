package data

// Stable codes carried by ValidationError. The REST facade passes them
// through to clients, so they must not change.
const (
	CodeDatasetEmpty             = "dataset_empty"
	CodeDatasetUnreadable        = "dataset_unreadable"
	CodeDatasetFormatUnsupported = "dataset_format_unsupported"
	CodeColumnUnknown            = "column_unknown"
	CodeColumnNonNumeric         = "column_non_numeric"
	CodeColumnDuplicate          = "column_duplicate"
	CodeValueNotFinite           = "value_not_finite"
	CodeColumnConstant           = "column_constant"
	CodeTooFewRows               = "too_few_rows"
	CodeRowLengthMismatch        = "row_length_mismatch"
)

// ValidationError describes one problem with a dataset that its owner can
// fix. Message is a single sentence naming the column and/or line involved.
type ValidationError struct {
	Code    string
	Column  string // column involved, "" if none
	Message string
	// Row is the 1-based file line (CSV parse problems) or data row
	// (value problems) involved; 0 when the problem is not about one row.
	Row int
	// Err is the underlying cause (I/O or decoder error), if any.
	Err error
}

func (e *ValidationError) Error() string { return e.Message }

// Unwrap exposes the underlying cause so callers can use errors.Is on, for
// example, fs.ErrNotExist.
func (e *ValidationError) Unwrap() error { return e.Err }
