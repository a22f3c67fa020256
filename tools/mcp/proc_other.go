//go:build !unix

package mcp

import "os/exec"

func childAttrs(*exec.Cmd) {}

func killGroup(*exec.Cmd) {}
