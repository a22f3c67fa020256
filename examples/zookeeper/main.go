// Command zookeeper is an assistant that ships as one executable with the
// model inside, for a machine with no network and no model store. Its
// tools are its own: they read and change the zoo's feeding log, a file
// beside the executable.
//
// Build it, then append the model with the offgrid command:
//
//	go build -o zookeeper ./examples/zookeeper
//	offgrid bundle --exe zookeeper -m default -o zookeeper-offline
//	./zookeeper-offline "Has the lion been fed today?"
//
// In the bundled executable the default model is the one it carries.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid"
)

// animals are the zoo's residents.
var animals = []string{"lion", "zebra", "penguin", "giraffe"}

// Feeding is the feed tool's arguments.
type Feeding struct {
	Animal string `json:"animal" enum:"lion,zebra,penguin,giraffe" jsonschema:"who was fed"`
	Food   string `json:"food" jsonschema:"what they ate"`
}

// Day is the fed_on tool's arguments.
type Day struct {
	Date string `json:"date" jsonschema:"a date as YYYY-MM-DD; today if empty" default:""`
}

// keeper holds the feeding log: one line per feeding, "DATE ANIMAL FOOD".
type keeper struct {
	log string
	now func() time.Time
}

func (k *keeper) feed(_ context.Context, f Feeding) (string, error) {
	if strings.TrimSpace(f.Food) == "" {
		return "", errors.New("say what the animal ate")
	}
	file, err := os.OpenFile(k.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	line := fmt.Sprintf("%s %s %s\n", k.now().Format(time.DateOnly), f.Animal, strings.ReplaceAll(f.Food, "\n", " "))
	if _, err := file.WriteString(line); err != nil {
		file.Close()
		return "", err
	}
	return "logged: " + strings.TrimSpace(line), file.Close()
}

func (k *keeper) fedOn(_ context.Context, d Day) (map[string][]string, error) {
	date := d.Date
	if date == "" {
		date = k.now().Format(time.DateOnly)
	}
	fed := map[string][]string{}
	for _, a := range animals {
		fed[a] = []string{} // every animal is listed: an empty list means not fed
	}
	file, err := os.Open(k.log)
	if errors.Is(err, os.ErrNotExist) {
		return fed, nil
	} else if err != nil {
		return nil, err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), " ", 3)
		if len(parts) == 3 && parts[0] == date {
			fed[parts[1]] = append(fed[parts[1]], parts[2])
		}
	}
	return fed, sc.Err()
}

func main() {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	k := &keeper{log: filepath.Join(filepath.Dir(exe), "feeding.log"), now: time.Now}
	question := strings.Join(os.Args[1:], " ")
	if question == "" {
		question = "Which animals have not been fed today?"
	}
	ctx := context.Background()
	m, err := offgrid.Open(ctx, offgrid.DefaultModel, offgrid.WithLog(os.Stderr))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	a, err := m.Agent(offgrid.Tools(
		offgrid.Func("feed", "Log that an animal was fed", k.feed),
		offgrid.Func("fed_on", "What each animal was fed on a day", k.fedOn),
	),
		offgrid.WithSystem("You are the zoo's feeding assistant. Today is "+k.now().Format("Monday, 2 January 2006")+"."),
	)
	if err != nil {
		log.Fatal(err)
	}
	answer, err := a.Ask(ctx, question)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}
