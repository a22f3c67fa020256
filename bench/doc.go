// Package bench measures how reliably a model calls tools on Berkeley
// Function Calling Leaderboard data: it loads BFCL cases, runs each in a
// fresh conversation, scores the calls with package checker and reports
// validity, accuracy and speed per model, grammar mode and category.
package bench
