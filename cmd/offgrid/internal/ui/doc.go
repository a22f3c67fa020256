// Package ui holds offgrid's terminal widgets: the permission prompt, a
// huh form. The library packages take small interfaces
// (permission.Prompter) and never import this one, so they stay free of
// the terminal libraries.
package ui
