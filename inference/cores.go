package inference

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// PhysicalCores returns the number of physical CPU cores (hyper-threads
// counted once), the thread count llama.cpp runs best with. It falls back
// to runtime.NumCPU when the count cannot be read.
func PhysicalCores() int {
	n := runtime.NumCPU()
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return n
	}
	defer f.Close()
	cores := map[string]bool{}
	var phys, core string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			if core != "" {
				cores[phys+"/"+core] = true
			}
			phys, core = "", ""
			continue
		}
		switch strings.TrimSpace(k) {
		case "physical id":
			phys = strings.TrimSpace(v)
		case "core id":
			core = strings.TrimSpace(v)
		}
	}
	if core != "" {
		cores[phys+"/"+core] = true
	}
	if len(cores) == 0 || len(cores) > n {
		return n
	}
	return len(cores)
}
