package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// Intent: what a request needs is the model's own choice, made under a
// grammar among labelled options, not a match of the request's words, so
// that it holds in any language the model reads. It decides which tools
// are offered (Options.ToolsByTopic), whether a file is rewritten
// (Options.Rewrite) and whether a question is answered from the files
// read (Options.ReadAnswer). When no choice can be had, every tool is
// offered and no assist is taken: the gate fails open.

// intent is what a request needs.
type intent struct {
	known  bool   // the model chose; false fails open
	label  string // the option chosen (Turn.Need)
	topic  string // the tool topic the request needs; "" for none
	change bool   // a change to files: editing one or making one
	list   bool   // the names of files or folders, not their content
	folder string // what the folder holds, as the choice was told (folderOverview)
	script bool   // its paths are in a script other than Latin (otherScript)
}

// intentOption is one option of the choice: a label the model writes
// and what it means.
type intentOption struct {
	label  string
	text   string
	topic  string
	change bool
	list   bool
}

// intentOptions returns the options offered for the topics of the
// registry's tools: the built-in topics in a fixed order, described for
// the model, then any other topic by its first tool's description, and
// last "none".
func (a *Agent) intentOptions() []intentOption {
	var topics []string
	first := map[string]string{} // topic → its first tool's description
	for _, t := range a.reg.Tools() {
		if t.Topic != "" && !slices.Contains(topics, t.Topic) {
			topics = append(topics, t.Topic)
			first[t.Topic] = t.Description
		}
	}
	var opts []intentOption
	add := func(topic string, o ...intentOption) {
		if slices.Contains(topics, topic) {
			opts = append(opts, o...)
		}
	}
	// A listing is an option of its own so that it is not searched for
	// (search-first): "List the files in this directory" read a file
	// that mentioned files.
	add(tools.TopicFiles,
		intentOption{"list", "the names of the files or folders in the user's folder: list them, or say which exist", tools.TopicFiles, false, true},
		intentOption{"read", "information inside the user's files: read, search, count or summarize what they say", tools.TopicFiles, false, false},
		intentOption{"change", "a change to the user's files: edit, fix, rename, add or remove lines, or create or write a file", tools.TopicFiles, true, false})
	add(tools.TopicClock, intentOption{"clock", "the current time, date or day of the week, from the computer's clock", tools.TopicClock, false, false})
	add(tools.TopicTasks, intentOption{"tasks", "the task list this assistant keeps for the user: add tasks, list them or mark them done", tools.TopicTasks, false, false})
	add(tools.TopicCommands, intentOption{"command", "running a command, a script or a program", tools.TopicCommands, false, false})
	for _, t := range topics {
		switch t {
		case tools.TopicFiles, tools.TopicClock, tools.TopicTasks, tools.TopicCommands:
		default:
			opts = append(opts, intentOption{t, shorten(first[t], 100), t, false, false})
		}
	}
	return append(opts, intentOption{"none", "nothing from the computer: general knowledge, arithmetic, writing or conversation", "", false, false})
}

// intentExamples are requests and the label of each, in several
// languages; an example whose label is not offered is left out.
var intentExamples = []struct{ request, label string }{
	{"Show me what's in the docs folder", "list"},
	{"Explique-moi ce qu'est une API REST", "none"},
	{"Rename the function load_data to read_data in utils.py", "change"},
	{"今何時ですか", "clock"},
	{"¿Qué versión aparece en package.json?", "read"},
	{"Remind me to call the dentist", "tasks"},
	{"Search the code for FIXME and tell me which file has it", "read"},
	{"Schreib eine Datei todo.md mit drei Punkten", "change"},
	{"What is 7 squared?", "none"},
	{"Lance le script build.sh", "command"},
	{"哪个文件定义了数据库连接？", "read"},
	{"La fecha límite en plan.md está mal, ponla al 3 de mayo", "change"},
	{"Wie heißt die Hauptstadt von Kanada?", "none"},
	{"Where is the retry limit configured?", "read"},
	{"What did the team say about the launch date?", "read"},
	{"Tom moved to Lyon, his address in the contacts is out of date", "change"},
	{"config 里的超时是多少秒？", "read"},
	{"Die Aufgabe mit dem Zahnarzt ist erledigt.", "change"},
	{"¿Cuántas líneas tiene el README?", "read"},
	{"Le bouton « Envoyer » doit s'appeler « Valider » partout", "change"},
	{"plan.md の締め切りを金曜日にしておいて", "change"},
	{"Put a line in the changelog that the login bug is fixed", "change"},
	{"Ajoute une tâche : arroser les plantes", "tasks"},
	{"Welche Python-Dateien gibt es hier?", "list"},
	{"Quelle heure est-il maintenant ?", "clock"},
}

// intentMessages is the choice put to the model: the options and what
// the folder holds (folder, maybe ""), examples as earlier turns of a
// conversation, then the request. All but the request are the same for
// every request in a folder, so their KV cache is kept.
func intentMessages(opts []intentOption, folder, request string) ([]Message, []string) {
	var b strings.Builder
	b.WriteString("A user works in a folder of files on their computer (a project, notes, documents or data). For each request, reply with one word: what the request needs.\n\n")
	if folder != "" {
		b.WriteString("The folder holds " + folder + ".\n\n")
	}
	labels := make([]string, len(opts))
	for i, o := range opts {
		labels[i] = o.label
		fmt.Fprintf(&b, "%s: %s\n", o.label, o.text)
	}
	msgs := []Message{{Role: RoleSystem, Content: strings.TrimSpace(b.String())}}
	for _, ex := range intentExamples {
		if slices.Contains(labels, ex.label) {
			msgs = append(msgs, Message{Role: RoleUser, Content: ex.request}, Message{Role: RoleAssistant, Content: ex.label})
		}
	}
	return append(msgs, Message{Role: RoleUser, Content: request}), labels
}

// intent has the model choose what request needs, told what the folder
// holds (folderOverview) before the examples: told it after the request,
// the 0.5B chose "read" for "What is 12 times 12?". A request that names
// a file or folder, even one that does not exist ("Add a .gitignore",
// "show /etc/hosts"), needs the files whatever the model chose: when it
// chose none, it chooses again among the options that need them (the
// 0.5B chose none for a Japanese request to create a .gitignore, which
// was then read, not written). So it does, between reading and listing,
// when the folder holds files and the model was less than even sure of
// an option that needs none (unsureChoice).
func (a *Agent) intent(ctx context.Context, turn *Turn, request string, named []tools.Mention, on func(Event)) intent {
	opts := a.intentOptions()
	if len(opts) < 2 {
		return intent{}
	}
	folder, paths := a.folderOverview(ctx)
	msgs, labels := intentMessages(opts, folder, request)
	req := CompletionRequest{
		Messages:   msgs,
		Format:     a.opts.Format,
		ToolChoice: grammar.None,
		MaxTokens:  4,
		Fixed:      len(msgs) - 1,
		Stream:     func(string) {},
	}
	if !a.opts.NoGrammar {
		req.Choices, req.FirstProb = labels, true
	}
	comp, err := a.complete(ctx, turn, on, req)
	word, _, _ := strings.Cut(strings.TrimSpace(comp.Content), " ")
	i := slices.Index(labels, strings.ToLower(strings.TrimRight(word, ".!")))
	if err != nil || i < 0 {
		return intent{}
	}
	if a.unsureChange(opts[i], comp.FirstProb, named) {
		// Chosen again, how sure the model was of the new choice decides
		// whether it is made a third time, among the options that need
		// the files, as below.
		i, comp.FirstProb = a.chooseAgain(ctx, turn, on, req, opts, i, true, func(o intentOption) bool { return !o.change })
	}
	unsure := comp.FirstProb > 0 && comp.FirstProb < unsureChoice && opts[i].topic != tools.TopicFiles && folder != ""
	if (opts[i].topic == "" && len(named) > 0 || unsure) && !a.opts.NoGrammar {
		// Named files, or a choice away from the files that the model
		// was less than even sure of: the choice is made again among the
		// options that need the files, whether to read, list or change
		// them; not to change them when unsure (no file named), which
		// nothing here suggests: so chosen, the 0.5B went on to insert a
		// line for "list the test files".
		i, _ = a.chooseAgain(ctx, turn, on, req, opts, i, false, func(o intentOption) bool {
			return o.topic == tools.TopicFiles && !(unsure && len(named) == 0 && o.change)
		})
	}
	in := intent{known: true, label: opts[i].label, topic: opts[i].topic, change: opts[i].change, list: opts[i].list, folder: folder, script: otherScript(paths)}
	if in.topic == "" && len(named) > 0 {
		in.topic = tools.TopicFiles
	}
	return in
}

// chooseAgain has the model choose again, as req asked, among the
// options that keep allows; it returns the index of the option chosen,
// or i, the first choice, when none could be had, and with prob how sure
// the model was of it (0 when not asked or none was had).
func (a *Agent) chooseAgain(ctx context.Context, turn *Turn, on func(Event), req CompletionRequest, opts []intentOption, i int, prob bool, keep func(intentOption) bool) (int, float64) {
	var labels []string
	for _, o := range opts {
		if keep(o) {
			labels = append(labels, o.label)
		}
	}
	req.Choices, req.FirstProb = labels, prob
	comp, err := a.complete(ctx, turn, on, req)
	if err != nil {
		return i, 0
	}
	if j := slices.IndexFunc(opts, func(o intentOption) bool { return o.label == strings.TrimSpace(comp.Content) }); j >= 0 && keep(opts[j]) {
		return j, comp.FirstProb
	}
	return i, 0
}

// unsureChange reports whether the model's choice of a change to the
// files (o), with first-token probability p, is made again among the
// other options (Options.SureChange): it names no file and the model was
// less than unsureChangeProb sure of it.
func (a *Agent) unsureChange(o intentOption, p float64, named []tools.Mention) bool {
	return a.opts.SureChange && o.change && len(named) == 0 && p > 0 && p < unsureChangeProb && !a.opts.NoGrammar
}

// unsureChangeProb is the probability under which SureChange has a
// change chosen again. On the general suite's dev split the 1.5B chose a
// change, 0.47 to 0.68 sure, for four questions that name no file ("who
// did we get the valve from? I'd like to order a spare" at 0.89 was the
// one above), and for every change those requests asked that names no
// file it was 0.74 sure or more. The 0.5B's choices do not separate so:
// its real changes were 0.37 to 0.98 sure, its questions 0.28 to 0.63.
const unsureChangeProb = 0.7

// unsureChoice is the probability under which the model's choice of an
// option that needs no files (none, the clock, the task list) is made
// again among those that need them, when the folder holds files: on the
// general suite's dev split the 0.5B chose so, less than even sure, for
// "what does make lint run?" (none), "list the tests" and "how many TODO
// comments are left?" (the task list); no choice it was right about
// there, nor in the built-in suite, was that unsure.
const unsureChoice = 0.5

// maxOverview bounds the paths folderOverview shows.
const maxOverview = 60

// folderOverview is what the working directory holds, for a choice the
// model makes about a request: its files' paths, the shallowest first,
// at most maxOverview of them, and those paths; "" when Options.Files is
// unset, fails or finds none. Told that the folder holds
// projects/summer-party/plan.md, the model sees that "who is handling
// the grill?" is about the files.
func (a *Agent) folderOverview(ctx context.Context) (string, []string) {
	paths, more, err := a.projectFiles(ctx, maxWalk)
	if err != nil || len(paths) == 0 {
		return "", nil
	}
	paths = slices.Clone(paths)
	slices.SortStableFunc(paths, func(x, y string) int { return strings.Count(x, "/") - strings.Count(y, "/") })
	rest := 0
	if len(paths) > maxOverview {
		rest = len(paths) - maxOverview
		paths = paths[:maxOverview]
	}
	slices.Sort(paths)
	s := strings.Join(paths, ", ")
	if rest > 0 || more {
		s += " and more files"
	}
	return s, paths
}
