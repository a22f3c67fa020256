package agent

import (
	"context"
	"slices"
)

// An answer written without a look at the files that gives a phone
// number, an email address or a date nothing returned (withoutUnheld)
// shows the model wanted a fact it did not have: asked in Czech for the
// milk supplier's phone number in a café's folder, the 0.5B chose that
// the request needed no files, called nothing, and wrote a number, which
// offgrid dropped; the number was in nha-cung-cap.txt. So, with
// SearchFirst, offgrid then searches for the request as for one about
// the files, reads the best line's file, and has the answer written
// again from what they returned. Whatever that answer gives that nothing
// returned is dropped as before: the files are searched once a turn.

// lookUnheld searches the files for t's request (searchFirst, then
// readFirst) when the model's answer gives a contact or a date that
// nothing of the conversation holds and the turn has neither searched
// nor read; it reports whether it read a file (the search found a line),
// for the answer to be written again from it. A search that finds no
// line leaves the answer as it was, less what nothing returned: written
// again from no line, the 0.5B gave the phone number "1234567890".
func (a *Agent) lookUnheld(ctx context.Context, t *turnState, answer string) (bool, error) {
	if !a.opts.SearchFirst || !a.opts.ReadFirst || t.in.folder == "" || t.in.list {
		return false, nil
	}
	looked := func(c ToolRecord) bool { return c.Name == searchTool || c.Name == readFileTool }
	if slices.ContainsFunc(t.turn.Calls, looked) || withoutUnheld(answer, a.heard(t.turn)) == answer {
		return false, nil
	}
	a.walked = walk{} // the turn may have written files since they were listed
	own := NewExecutor(a.reg, a.policy, a.opts.Limits)
	n := len(t.turn.Calls)
	step, found, err := a.searchFiles(ctx, own, t)
	if err != nil || step.Action == ActionStop {
		return false, err
	}
	if _, _, err := a.readFirst(ctx, own, &t.turn, t.repeats, found, false, t.on); err != nil {
		return false, err
	}
	return slices.ContainsFunc(t.turn.Calls[n:], func(c ToolRecord) bool { return c.ByAgent && c.OK() && c.Name == readFileTool }), nil
}
