package main

import (
	"context"
	"errors"
)

func cmdBench(ctx context.Context, env *cliEnv, args []string) error {
	return errors.New("not built yet")
}
