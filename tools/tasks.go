package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

const (
	addTaskDescription    = "Add a pending task to the user's task list, which offgrid keeps (not a file: to add a line to a file, use insert_lines); returns its id (task_1, task_2, …)."
	listTasksDescription  = "List the tasks of the user's task list with their ids and statuses (not the lines of a file)."
	updateTaskDescription = "Set the status of a task of the user's task list (not a file: to change a file, use replace_lines)."
)

// taskList is the agent's to-do list; it lives as long as its registry.
type taskList struct {
	mu    sync.Mutex
	tasks []task
}

type task struct {
	id, description, status string
}

// addTaskArgs names its field task, not description: small models given
// a parameter called description filled it with the tool's own
// description (measured on the agent suite with the 0.5B default model).
type addTaskArgs struct {
	Task string `json:"task" jsonschema:"what the task is"`
}

type listTasksArgs struct {
	Status string `json:"status,omitempty" jsonschema:"only tasks with this status" enum:"pending,in_progress,completed"`
}

type updateTaskArgs struct {
	ID     string `json:"id" jsonschema:"e.g. task_1"`
	Status string `json:"status" enum:"pending,in_progress,completed"`
}

func validStatus(s string) bool {
	return s == "pending" || s == "in_progress" || s == "completed"
}

func (l *taskList) add(ctx context.Context, a addTaskArgs) (string, error) {
	d := strings.TrimSpace(a.Task)
	if d == "" {
		return "", Errorf(TypeValidationFailed, "task is empty")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t := task{id: fmt.Sprintf("task_%d", len(l.tasks)+1), description: d, status: "pending"}
	l.tasks = append(l.tasks, t)
	return fmt.Sprintf("Added %s [pending] %s", t.id, t.description), nil
}

func (l *taskList) list(ctx context.Context, a listTasksArgs) (string, error) {
	if a.Status != "" && !validStatus(a.Status) {
		return "", Errorf(TypeValidationFailed, "status %q is not one of pending, in_progress, completed", a.Status)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	counts := map[string]int{}
	for _, t := range l.tasks {
		counts[t.status]++
		if a.Status == "" || t.status == a.Status {
			fmt.Fprintf(&b, "%s [%s] %s\n", t.id, t.status, t.description)
		}
	}
	if b.Len() == 0 {
		if a.Status != "" {
			return fmt.Sprintf("No %s tasks (%s in all).\n", a.Status, plural(len(l.tasks), "task")), nil
		}
		return "No tasks yet; add one with add_task.\n", nil
	}
	fmt.Fprintf(&b, "%s: %d pending, %d in progress, %d completed\n",
		plural(len(l.tasks), "task"), counts["pending"], counts["in_progress"], counts["completed"])
	return b.String(), nil
}

func (l *taskList) update(ctx context.Context, a updateTaskArgs) (string, error) {
	if !validStatus(a.Status) {
		return "", Errorf(TypeValidationFailed, "status %q is not one of pending, in_progress, completed", a.Status)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.tasks {
		if l.tasks[i].id == a.ID {
			old := l.tasks[i].status
			l.tasks[i].status = a.Status
			return fmt.Sprintf("%s: %s → %s (%s)", a.ID, old, a.Status, l.tasks[i].description), nil
		}
	}
	if len(l.tasks) == 0 {
		return "", Errorf(TypeNotFound, "no task %q: the task list is empty", a.ID)
	}
	return "", Errorf(TypeNotFound, "no task %q; the ids are task_1 to task_%d", a.ID, len(l.tasks))
}
