// Package permission decides whether a tool call may run: safe tools run,
// medium and high risk tools need the user's consent, given once, for the
// session, or always (remembered in a policies file), unless flags decide
// beforehand.
//
// An executor uses a Policy in two steps so it can pause between them:
// Evaluate says Allow, Deny or Ask; after asking (see Prompter), Record
// stores the answer. Authorize does both.
package permission
