// Package testenv finds what the project's tests need from outside a
// package: the BFCL data set and whether a missing piece is a failure (under
// CI) or a skip (on a developer's machine). Only tests import it.
package testenv
