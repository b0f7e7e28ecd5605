package app

import (
	"io"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// setupLogging sends controller-runtime's logs to w: warnings and errors by default, info
// with verbose.
func setupLogging(w io.Writer, verbose bool) {
	level := zapcore.WarnLevel
	if verbose {
		level = zapcore.InfoLevel
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(w), zap.Level(level), zap.ConsoleEncoder()))
}
