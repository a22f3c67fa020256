// Package checker scores function calls against BFCL possible answers with
// the rules of the Berkeley Function Calling Leaderboard's AST checker
// (bfcl_eval/eval_checker/ast_eval/ast_checker.py, Apache-2.0), for the
// Python categories: simple, multiple, parallel, parallel_multiple,
// irrelevance and their live_ variants.
//
// Values are compared as Python compares them (see Decode): the BFCL
// checker's int/float/bool distinctions, its "variable" rule, its string
// standardization and its one-level nested type check are all kept,
// quirks included, so a score here means what it means on the leaderboard.
package checker
