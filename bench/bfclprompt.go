package bench

import (
	"fmt"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// bfclSystemPrompt is BFCL's DEFAULT_SYSTEM_PROMPT for prompting (non
// function-calling) models, quoted verbatim from
// bfcl_eval/constants/default_prompts.py of the Berkeley Function Calling
// Leaderboard (github.com/ShishirPatil/gorilla, Apache-2.0) so that
// --tool-format bfcl-prompt scores compare with the public leaderboard.
// %s stands where BFCL formats {functions}.
const bfclSystemPrompt = `You are an expert in composing functions. You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose.
If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.
You should only return the function calls in your response.

If you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]
You SHOULD NOT include any other text in the response.

At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.

Here is a list of functions in JSON format that you can invoke.
%s

`

// bfclPythonHint is the sentence BFCL appends to each function's
// description in the Python categories.
const bfclPythonHint = " Note that the provided function is in Python 3 syntax."

// BFCLPrompt returns the system prompt BFCL's prompt mode gives a model
// for c: its instructions and the case's function docs as BFCL shows
// them (raw BFCL types, the Python hint on each description, written as
// Python's json.dumps writes them). A system message of the question
// follows, as in BFCL.
func BFCLPrompt(c *Case) (string, error) {
	fns, err := jsonx.Parse(c.Functions)
	if err != nil {
		return "", fmt.Errorf("bench: %s functions: %w", c.ID, err)
	}
	if fns.Kind != jsonx.Array {
		return "", fmt.Errorf("bench: %s: functions are not a JSON array", c.ID)
	}
	for i, fn := range fns.Elems {
		if fn.Kind != jsonx.Object {
			return "", fmt.Errorf("bench: %s: function %d is not an object", c.ID, i)
		}
		desc := fn.Get("description")
		if desc != nil && desc.Kind != jsonx.String {
			return "", fmt.Errorf("bench: %s: function %d: description is not a string", c.ID, i)
		}
		d, _ := desc.AsString()
		fn.Set("description", jsonx.NewString(d+bfclPythonHint)) // a missing one is added last, as BFCL does
	}
	prompt := fmt.Sprintf(bfclSystemPrompt, fns.AppendDumps(nil, jsonx.PythonDefaults))
	if len(c.Messages) > 0 && c.Messages[0].Role == "system" {
		prompt += "\n\n" + c.Messages[0].Content
	}
	return prompt, nil
}
