package permission

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/offgrid-ai/offgrid/tools"
)

// Request describes a call the user is asked about.
type Request struct {
	Tool        string
	Description string
	Risk        tools.Risk
	Args        json.RawMessage // the arguments object
}

// Prompter asks the user whether a call may run.
type Prompter interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// PrompterFunc adapts a function to the Prompter interface.
type PrompterFunc func(ctx context.Context, req Request) (Answer, error)

// Ask calls f.
func (f PrompterFunc) Ask(ctx context.Context, req Request) (Answer, error) { return f(ctx, req) }

// Question is what a prompt asks about req: "Allow NAME to run?", with the
// tool's name escaped for a terminal.
func (r Request) Question() string {
	return fmt.Sprintf("Allow %s to run?", visible(r.Tool, 64))
}
