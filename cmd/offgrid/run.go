package main

import (
	"context"
	"errors"
)

func cmdRun(ctx context.Context, env *cliEnv, args []string) error {
	return errors.New("not built yet")
}
