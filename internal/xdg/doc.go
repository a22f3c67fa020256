// Package xdg finds offgrid's directories by the XDG base-directory rules.
package xdg
