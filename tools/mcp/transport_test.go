package mcp

import (
	"bufio"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestOverLine: a line over the cap is read to its end, keeping its
// size and the id of the message, before or after the large value.
func TestOverLine(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	for _, tc := range []struct {
		name, line string
		id         any // nil: none
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`, float64(7)},
		{"id last", `{"result":{"content":[{"type":"text","text":"` + big + `\"id\":9}"}],"structuredContent":{"id":3}},"jsonrpc":"2.0","id":"a\"b"}`, `a"b`},
		{"no id", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}`, nil},
		{"not JSON", big, nil},
	} {
		br := bufio.NewReaderSize(strings.NewReader(tc.line+"\n"+`{"next":1}`+"\n"), 64<<10)
		line, over, err := readLine(br, 1<<16)
		if err != nil || line != nil || over == nil || over.size != int64(len(tc.line)+1) {
			t.Fatalf("%s: line %d bytes, over %+v, err %v", tc.name, len(line), over != nil, err)
		}
		id, ok := over.id()
		want, _ := jsonrpc.MakeID(tc.id)
		if ok != (tc.id != nil) || ok && id != want {
			t.Errorf("%s: id %v, %v; want %v", tc.name, id, ok, tc.id)
		}
		if next, _, _ := readLine(br, 1<<16); string(next) != `{"next":1}`+"\n" {
			t.Errorf("%s: the next line is %q", tc.name, next)
		}
	}
}
