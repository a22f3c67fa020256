package main

import (
	"context"
	"errors"
)

func cmdTools(ctx context.Context, env *cliEnv, args []string) error {
	return errors.New("not built yet")
}
