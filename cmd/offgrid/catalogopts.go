package main

import (
	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/models"
)

// withCatalog returns o with catalog model d's measured settings for the
// settings the user did not give. given reports whether one was given,
// by the name of its `offgrid run` flag (tool-choice, results,
// on-repeat, answer, remind, answer-after-change, tool-examples,
// look-first, read-first, unknown-as-text, tools-by-topic, rewrite,
// read-answer, locate, temp).
// `offgrid run` and `bench --agent` both use it, so that a benchmark
// measures a model as run drives it.
func withCatalog(o agent.Options, d models.AgentDefaults, given func(flag string) bool) agent.Options {
	if !given("tool-choice") && d.ToolChoice != "" {
		o.ToolChoice = grammar.ToolChoice(d.ToolChoice)
	}
	if !given("results") && d.Results != "" {
		o.Results = agent.ResultStyle(d.Results)
	}
	if !given("on-repeat") && d.OnRepeat != "" {
		o.OnRepeat = agent.RepeatPolicy(d.OnRepeat)
	}
	if !given("answer") && d.Answer != "" {
		o.Answer = agent.AnswerStyle(d.Answer)
	}
	if !given("remind") {
		o.Remind = d.Remind
	}
	if !given("answer-after-change") {
		o.AnswerAfterChange = d.AnswerAfterChange
	}
	if !given("tool-examples") {
		o.ToolExamples = d.ToolExamples
	}
	if !given("look-first") {
		o.LookFirst = d.LookFirst
	}
	if !given("read-first") {
		o.ReadFirst = d.ReadFirst
	}
	if !given("unknown-as-text") {
		o.UnknownAsText = d.UnknownAsText
	}
	if !given("tools-by-topic") {
		o.ToolsByTopic = d.ToolsByTopic
	}
	if !given("rewrite") {
		o.Rewrite = d.Rewrite
	}
	if !given("read-answer") {
		o.ReadAnswer = d.ReadAnswer
	}
	if !given("locate") {
		o.Locate = d.Locate
	}
	if !given("temp") && d.Temperature != nil {
		o.Sampling.Temperature = *d.Temperature
	}
	return o
}
