// Package promptcache keeps the KV states of prompt prefixes on disk (an
// inference.PrefixCache), so that a new process loads the system prompt
// and the tool definitions instead of decoding them again.
//
// An entry is one file in the cache directory, named after the model and
// the key, written atomically:
//
//	<model sha256[:16]>-<key[:16]>.kv
//
//	magic "OGPROMPT" | version u32 | key [32]byte | tokens u32 |
//	payload size u64 | CRC-32C of the payload u32 | payload
//
// (integers little-endian). The key is the SHA-256 of the model's SHA-256,
// the context layout and the prefix tokens. An entry that is truncated,
// corrupt or made for another key is reported through Options.Warn,
// removed and, after the prefix is decoded again, replaced. The directory
// is kept under Options.MaxBytes by removing the least recently used
// entries; a hit refreshes its entry's time.
package promptcache
