package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
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
	// Re-encode each function, keeping key order, with the hint added.
	var sb strings.Builder
	sb.WriteByte('[')
	dec := json.NewDecoder(bytes.NewReader(c.Functions))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return "", fmt.Errorf("bench: %s: functions are not a JSON array", c.ID)
	}
	for i := 0; dec.More(); i++ {
		var fn json.RawMessage
		if err := dec.Decode(&fn); err != nil {
			return "", fmt.Errorf("bench: %s functions: %w", c.ID, err)
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		if err := pyDumps(&sb, fn, true); err != nil {
			return "", fmt.Errorf("bench: %s functions: %w", c.ID, err)
		}
	}
	sb.WriteByte(']')
	prompt := fmt.Sprintf(bfclSystemPrompt, sb.String())
	if len(c.Messages) > 0 && c.Messages[0].Role == "system" {
		prompt += "\n\n" + c.Messages[0].Content
	}
	return prompt, nil
}

// pyDumps writes JSON as Python's json.dumps does by default (", " and
// ": " separators, non-ASCII escaped), keeping key order. hint appends
// BFCL's Python hint to a top-level "description".
func pyDumps(sb *strings.Builder, data []byte, hint bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dumpValue(sb, dec, hint); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data")
	}
	return nil
}

func dumpValue(sb *strings.Builder, dec *json.Decoder, hint bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			sb.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					sb.WriteString(", ")
				}
				if err := dumpValue(sb, dec, false); err != nil {
					return err
				}
			}
			sb.WriteByte(']')
		case '{':
			sb.WriteByte('{')
			hasDesc := false
			for i := 0; dec.More(); i++ {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := k.(string)
				if i > 0 {
					sb.WriteString(", ")
				}
				pyString(sb, key)
				sb.WriteString(": ")
				if hint && key == "description" {
					hasDesc = true
					v, err := dec.Token()
					if err != nil {
						return err
					}
					s, ok := v.(string)
					if !ok {
						return fmt.Errorf("description is not a string")
					}
					pyString(sb, s+bfclPythonHint)
					continue
				}
				if err := dumpValue(sb, dec, false); err != nil {
					return err
				}
			}
			if hint && !hasDesc {
				// BFCL adds the hint to a missing description too.
				if sb.String()[sb.Len()-1] != '{' {
					sb.WriteString(", ")
				}
				pyString(sb, "description")
				sb.WriteString(": ")
				pyString(sb, bfclPythonHint)
			}
			sb.WriteByte('}')
		}
		_, err := dec.Token() // closing delimiter
		return err
	case string:
		pyString(sb, t)
	case json.Number:
		sb.WriteString(t.String())
	case bool:
		fmt.Fprint(sb, t)
	case nil:
		sb.WriteString("null")
	}
	return nil
}

// pyString writes s as json.dumps(ensure_ascii=True) does.
func pyString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\b':
			sb.WriteString(`\b`)
		case r == '\f':
			sb.WriteString(`\f`)
		case r < 0x20 || r > 0x7f && r < 0x10000:
			fmt.Fprintf(sb, `\u%04x`, r)
		case r >= 0x10000:
			a, b := utf16.EncodeRune(r)
			fmt.Fprintf(sb, `\u%04x\u%04x`, a, b)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
}
