package apiserver

import (
	"context"
	"time"
)

// maintainEvery spaces the clean-up passes.
const maintainEvery = 10 * time.Minute

// Maintain deletes what has outlived its use until ctx ends: idempotency records older
// than 24 hours and OAuth tokens expired for more than a day. Reads already ignore such
// rows; this only keeps the tables small. Run it on one replica or all: the deletes are
// idempotent.
func (s *Server) Maintain(ctx context.Context) {
	t := time.NewTicker(maintainEvery)
	defer t.Stop()
	for {
		s.maintainOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) maintainOnce(ctx context.Context) {
	if n, err := s.opts.Store.SweepIdempotency(ctx); err != nil {
		s.log.Error(err, "sweeping idempotency records")
	} else if n > 0 {
		s.log.V(1).Info("swept idempotency records", "count", n)
	}
	if n, err := s.oauth.Storage.Sweep(ctx); err != nil {
		s.log.Error(err, "sweeping OAuth tokens")
	} else if n > 0 {
		s.log.V(1).Info("swept OAuth tokens", "count", n)
	}
}
