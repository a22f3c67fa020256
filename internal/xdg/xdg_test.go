package xdg

import "testing"

func TestConfigDir(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/offgrid"},
		{map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, "/h/.config/offgrid"},
		{map[string]string{"HOME": "/h"}, "/h/.config/offgrid"},
	} {
		got, err := ConfigDir(func(k string) string { return c.env[k] })
		if err != nil || got != c.want {
			t.Errorf("ConfigDir(%v) = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
	if _, err := ConfigDir(func(string) string { return "" }); err == nil {
		t.Error("ConfigDir with no HOME: no error")
	}
}
