// Package curator chooses the parts of a long file that matter for a
// request, so that an agent reading the file is shown those parts
// instead of its first screenful.
//
// A file is cut into sections of a few dozen lines. Lines the request
// names ("line 2999", "the last lines") are taken as they are. Otherwise
// the sections are ranked by the request's words (weighted by how rare
// they are in the file), and a Chooser — the agent's own model, under a
// grammar that admits only a list of section numbers — picks among the
// best of them. Should the Chooser fail, the best-ranked sections are
// used, and without any match the head and the tail of the file.
//
// Answers are cached per (file content, request, chooser), in memory
// and on disk, so a repeated read costs a hash and a lookup.
package curator
