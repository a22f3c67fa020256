// Package agent is offgrid's conversation loop: it renders the
// conversation with the model's chat template, generates a reply under a
// grammar that only admits valid tool calls, runs the calls (asking for
// permission where the policy says so), feeds the results back and
// repeats until the model answers in text or a limit is reached.
//
// [Complete] generates one reply; [Agent] runs the loop over a session's
// history; [Executor] is the state machine that takes each reply's calls
// through policy, permission and execution.
package agent
