//go:build cgo

package agent

import "github.com/offgrid-ai/offgrid/inference"

// InfoFromModel reads a ModelInfo off a loaded model.
func InfoFromModel(m *inference.Model) ModelInfo {
	info := ModelInfo{Template: m.ChatTemplate(), Architecture: m.Architecture()}
	if bos := m.BOS(); bos >= 0 {
		info.BOS = m.TokenText(bos)
	}
	if eos := m.EOS(); eos >= 0 {
		info.EOS = m.TokenText(eos)
	}
	info.Name, _ = m.Meta("general.name")
	for _, t := range m.EOG() {
		if s := m.TokenText(t); s != "" {
			info.EOG = append(info.EOG, s)
		}
	}
	return info
}
