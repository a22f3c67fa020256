package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/offgrid-ai/offgrid/curator"
)

// CuratorCase is a long file and a question whose answer is on one line
// deep in it.
type CuratorCase struct {
	Name, File, Question string
	Text                 string
	// Answer is the number of the line that answers the question.
	Answer int
}

// CuratorCases returns the file-curator suite: ten files of 1,500 to
// 4,000 lines (source code, logs, CSV, documentation, configuration),
// generated from a fixed seed, each with a question whose answer sits
// past the first thousand lines among lines that share its words.
func CuratorCases() []CuratorCase {
	r := rand.New(rand.NewPCG(1, 2))
	var cs []CuratorCase
	add := func(name, file, question string, n, at int, line func(i int) string, answer string) {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if i == at {
				b.WriteString(answer + "\n")
				continue
			}
			b.WriteString(line(i) + "\n")
		}
		cs = append(cs, CuratorCase{Name: name, File: file, Question: question, Text: b.String(), Answer: at})
	}
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }

	// Go source: many small functions with timeouts; one returns the
	// default for an empty value.
	add("go-source", "server.go", "What timeout does parseTimeout use when the value is empty?", 3200, 2412, func(i int) string {
		switch i % 8 {
		case 0:
			return fmt.Sprintf("func handler%d(w http.ResponseWriter, r *http.Request) {", i)
		case 1:
			return fmt.Sprintf("\tctx, cancel := context.WithTimeout(r.Context(), %d*time.Second)", 1+i%30)
		case 2:
			return "\tdefer cancel()"
		case 3:
			return fmt.Sprintf("\tif err := serve(ctx, w, %q); err != nil {", pick("users", "orders", "items", "carts"))
		case 4:
			return "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)"
		case 5:
			return "\t}"
		case 6:
			return "}"
		}
		return ""
	}, "\tif s == \"\" { return 45 * time.Second, nil } // parseTimeout: the default when the value is empty")

	// Python source.
	add("py-source", "config.py", "Which exception does load_config raise when the file is missing?", 2500, 1877, func(i int) string {
		switch i % 6 {
		case 0:
			return fmt.Sprintf("def load_%s_%d(path):", pick("users", "orders", "cache", "plugins"), i)
		case 1:
			return "    with open(path) as f:"
		case 2:
			return "        data = json.load(f)"
		case 3:
			return fmt.Sprintf("    if %q not in data:", pick("name", "version", "items"))
		case 4:
			return fmt.Sprintf("        raise ValueError(\"missing key in %d\")", i)
		}
		return "    return data"
	}, "    if not os.path.exists(path): raise ConfigNotFoundError(path)  # load_config: missing file")

	// An application log with many database lines.
	add("app-log", "app.log", "Why did the database connection fail?", 4000, 3121, func(i int) string {
		return fmt.Sprintf("2026-11-23T%02d:%02d:%02dZ INFO %s", i/3600%24, i/60%60, i%60, pick(
			fmt.Sprintf("database query took %d ms", r.IntN(90)),
			fmt.Sprintf("request %d served in %d ms", i, r.IntN(200)),
			"database pool has 8 idle connections",
			fmt.Sprintf("cache hit ratio %.2f", r.Float64())))
	}, "2026-11-23T00:52:01Z ERROR database connection failed: password authentication failed for user \"app\"")

	// A web server's access log.
	add("access-log", "access.log", "Which client IP address got the 503 response?", 3500, 2950, func(i int) string {
		return fmt.Sprintf("10.1.%d.%d - - [23/Nov/2026:10:%02d:%02d +0000] \"GET /%s HTTP/1.1\" %s %d", r.IntN(256), r.IntN(256), i/60%60, i%60,
			pick("index.html", "api/users", "api/orders", "static/app.js"), pick("200", "200", "200", "304", "404"), r.IntN(50000))
	}, "192.168.77.4 - - [23/Nov/2026:11:02:31 +0000] \"GET /api/orders HTTP/1.1\" 503 0")

	// A CSV of people.
	first := []string{"Ann", "Bob", "Carla", "Dmitri", "Eve", "Farid", "Greta", "Hiro"}
	last := []string{"Smith", "Jones", "Garcia", "Novak", "Okafor", "Larsen", "Silva", "Tanaka"}
	add("people-csv", "people.csv", "What is the email address of Zelda Quartermain?", 2000, 1544, func(i int) string {
		if i == 1 {
			return "id,first_name,last_name,email,city"
		}
		f, l := first[r.IntN(len(first))], last[r.IntN(len(last))]
		return fmt.Sprintf("%d,%s,%s,%s.%s%d@example.com,%s", i, f, l, strings.ToLower(f), strings.ToLower(l), i, pick("Oslo", "Lima", "Pune", "Kyiv"))
	}, "1544,Zelda,Quartermain,zq@quartermain.example.org,Reykjavik")

	// A CSV of sales.
	add("sales-csv", "sales.csv", "How many units of SKU-88412 were sold?", 3000, 2233, func(i int) string {
		if i == 1 {
			return "date,sku,units,price"
		}
		return fmt.Sprintf("2026-%02d-%02d,SKU-%05d,%d,%d.%02d", 1+i%12, 1+i%28, 10000+r.IntN(80000), 1+r.IntN(40), r.IntN(500), r.IntN(100))
	}, "2026-09-14,SKU-88412,613,19.99")

	// Long documentation.
	add("docs-md", "MANUAL.md", "How do I turn on verbose logging?", 2600, 2017, func(i int) string {
		switch i % 10 {
		case 0:
			return fmt.Sprintf("## %s %d", pick("Installing", "Upgrading", "Configuring", "Backing up"), i/10)
		case 5:
			return ""
		}
		return pick("The service writes its state to the data directory on every change.",
			"Logging goes to standard error unless a log file is configured.",
			"Restart the service after changing its configuration.",
			"See the configuration reference for every option and its default.")
	}, "To turn on verbose logging, start the service with --verbose or set LOG_LEVEL=debug in its environment.")

	// A long INI configuration.
	add("config-ini", "cluster.ini", "What is max_connections for the replica database?", 1800, 1333, func(i int) string {
		switch i % 6 {
		case 0:
			return fmt.Sprintf("[%s_%d]", pick("primary", "cache", "queue", "worker"), i)
		case 1:
			return fmt.Sprintf("max_connections = %d", 50+r.IntN(200))
		case 2:
			return fmt.Sprintf("host = 10.0.%d.%d", r.IntN(256), r.IntN(256))
		case 3:
			return "timeout = 30"
		}
		return ""
	}, "[replica] max_connections = 640")

	// A plain text file, asked by line number.
	add("line-number", "big.txt", "What is on line 2999 of big.txt?", 3000, 2999, func(i int) string {
		return fmt.Sprintf("Line %d: the quick brown fox jumps over the lazy dog again.", i)
	}, "Line 2999: the treasure is buried under the old oak tree.")

	// JSON lines.
	add("orders-jsonl", "orders.jsonl", "What is the status of order 48213?", 3000, 2604, func(i int) string {
		return fmt.Sprintf(`{"order": %d, "status": %q, "total": %d.%02d}`, 10000+r.IntN(80000), pick("shipped", "pending", "paid"), r.IntN(900), r.IntN(100))
	}, `{"order": 48213, "status": "refunded", "total": 75.10}`)
	return cs
}

// CuratorRow is one method's result on one case.
type CuratorRow struct {
	Case   string         `json:"case"`
	Method string         `json:"method"`
	Found  bool           `json:"found"` // the selection holds the answer's line
	Lines  int            `json:"lines"` // lines selected
	How    curator.Method `json:"how"`
	Error  string         `json:"error,omitempty"`
	// Seconds is the time of the first curation, Again of the same read
	// repeated (from the cache).
	Seconds float64 `json:"seconds"`
	Again   float64 `json:"again_seconds"`
}

// HeadLines is how many lines a read without a curator shows in the
// comparison: as many as the curator's most (three sections of 30).
const HeadLines = 90

// RunCurator measures, on each case, the head of the file and each named
// curator: whether the lines shown hold the answer, how many, and how
// long the first and a repeated curation took.
func RunCurator(ctx context.Context, cases []CuratorCase, curators []NamedCurator, progress func(CuratorRow)) ([]CuratorRow, error) {
	var rows []CuratorRow
	emit := func(r CuratorRow) {
		rows = append(rows, r)
		if progress != nil {
			progress(r)
		}
	}
	for _, c := range cases {
		emit(CuratorRow{Case: c.Name, Method: "head", Found: c.Answer <= HeadLines, Lines: HeadLines, How: curator.MethodHead})
		for _, nc := range curators {
			start := time.Now()
			s, err := nc.Curator.Curate(ctx, c.Question, c.File, c.Text)
			if err != nil {
				return rows, err
			}
			first := time.Since(start)
			start = time.Now()
			again, err := nc.Curator.Curate(ctx, c.Question, c.File, c.Text)
			if err != nil {
				return rows, err
			}
			row := CuratorRow{Case: c.Name, Method: nc.Name, How: s.Method, Seconds: first.Seconds(), Again: time.Since(start).Seconds()}
			if !again.Cached && s.Err == nil {
				row.Error = "the repeated read was not cached"
			}
			if s.Err != nil {
				row.Error = s.Err.Error()
			}
			for _, r := range s.Ranges {
				row.Lines += r.To - r.From + 1
				row.Found = row.Found || (r.From <= c.Answer && c.Answer <= r.To)
			}
			emit(row)
		}
	}
	return rows, nil
}

// NamedCurator is a curator under test.
type NamedCurator struct {
	Name    string
	Curator *curator.Curator
}

// WriteCuratorTable writes rows as a table: per case, each method's
// verdict, lines and time; then each method's totals.
func WriteCuratorTable(w io.Writer, rows []CuratorRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tmethod\tfound\tlines\thow\tfirst (s)\trepeat (ms)\tnote")
	type total struct {
		found, n       int
		seconds, again float64
	}
	totals := map[string]*total{}
	var order []string
	for _, r := range rows {
		verdict := "no"
		if r.Found {
			verdict = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%.2f\t%.3f\t%s\n", r.Case, r.Method, verdict, r.Lines, r.How, r.Seconds, r.Again*1000, r.Error)
		t, ok := totals[r.Method]
		if !ok {
			t = &total{}
			totals[r.Method] = t
			order = append(order, r.Method)
		}
		t.n++
		if r.Found {
			t.found++
		}
		t.seconds += r.Seconds
		t.again += r.Again
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "method\tfound\t\t\t\tmean first (s)\tmean repeat (ms)\t")
	for _, m := range order {
		t := totals[m]
		fmt.Fprintf(tw, "%s\t%d/%d\t\t\t\t%.2f\t%.3f\t\n", m, t.found, t.n, t.seconds/float64(t.n), t.again/float64(t.n)*1000)
	}
	return tw.Flush()
}
