package tools

import (
	"fmt"
	"slices"
	"testing"
)

func TestAbout(t *testing.T) {
	files := []string{FileTopic, "files", "folder", "line", "working directory"}
	clock := []string{"time", "year", "clock"}
	tasks := []string{"task", "tasks"}
	for _, tc := range []struct {
		request string
		topics  []string
		want    bool
	}{
		{"List the files in this directory.", files, true},
		{"What does notes.txt say?", files, true},                // a file name is the file topic
		{"Which port does docs/guide.md say?", files, true},      // a path too
		{"What is the current Working  Directory?", files, true}, // several words, any case and spacing
		{"What is 12 times 12?", clock, false},                   // "times" is not "time"
		{"What is 12 times 12?", files, false},
		{"What year is it? Check the clock.", clock, true},
		{"What version is 1.4.2?", files, false}, // a number is no file name
		{"Summarise it, e.g. in one line.", files, true},
		{"Say it, e.g. twice.", files, false},
		{"Add a task 'write docs', then list my tasks.", tasks, true},
		{"In notes.txt, change the line 'Buy milk' to 'Buy oat milk'.", tasks, false},
		{"Add the line 'TODO: release' at the end of todo.txt.", tasks, false}, // quoted, and a file name
		{"Add the line \"TODO: release\" to the list.", tasks, false},
		{"Don't forget Bob's task.", tasks, true},                     // apostrophes are no quotes
		{"How many lines in todo.txt start with TODO?", tasks, false}, // TODO marks code, not the task list
		{"See https://example.com/x.html", files, false},
		{"", files, false},
		{"anything", nil, false},
	} {
		if got := About(tc.request, tc.topics); got != tc.want {
			t.Errorf("About(%q, %q) = %v, want %v", tc.request, tc.topics, got, tc.want)
		}
	}
}

func TestFileNames(t *testing.T) {
	got := FileNames(`Copy notes.txt into "backup.txt", then docs/guide.md; version 1.4.2, e.g. notes.txt.`)
	if want := []string{"notes.txt", "backup.txt", "docs/guide.md"}; !slices.Equal(got, want) {
		t.Errorf("FileNames = %q, want %q", got, want)
	}
}

func ExampleAbout() {
	clock := []string{"time", "date", "clock"}
	fmt.Println(About("What time is it?", clock))
	fmt.Println(About("What is 12 times 12?", clock))
	fmt.Println(About("Add the line 'check the clock' to notes.txt.", clock))
	// Output:
	// true
	// false
	// false
}
