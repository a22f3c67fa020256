package main

import (
	"context"
	"errors"
	"fmt"
)

func cmdModels(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: want a subcommand: show, synth, fetch-default", errUsage)
	}
	switch args[0] {
	case "show":
		return cmdModelsShow(ctx, env, args[1:])
	case "synth":
		return cmdModelsSynth(ctx, env, args[1:])
	case "fetch-default":
		return cmdModelsFetchDefault(ctx, env, args[1:])
	}
	return errors.New("not built yet")
}
