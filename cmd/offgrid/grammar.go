package main

import (
	"context"
	"errors"
)

func cmdGrammar(ctx context.Context, env *cliEnv, args []string) error {
	return errors.New("not built yet")
}
