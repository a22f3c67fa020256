// Package deploy holds the files that run offgrid's benchmarks on a
// cluster; its tests validate them. It is a module of its own so that
// the Kubernetes API types it checks against stay out of offgrid's.
package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// TestKubernetesJobs: bench-job.yaml is two Jobs that decode strictly
// into the Kubernetes API types: an Indexed Job whose pods each run one
// shard, resumable, and the merge Job.
func TestKubernetesJobs(t *testing.T) {
	data, err := os.ReadFile("k8s/bench-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := bytes.Split(data, []byte("\n---\n"))
	if len(docs) != 2 {
		t.Fatalf("%d YAML documents, want 2", len(docs))
	}
	var bench, merge batchv1.Job
	for i, j := range []*batchv1.Job{&bench, &merge} {
		if err := yaml.UnmarshalStrict(docs[i], j); err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		if j.APIVersion != "batch/v1" || j.Kind != "Job" || len(j.Spec.Template.Spec.Containers) != 1 {
			t.Errorf("document %d: %s %s with %d containers", i+1, j.APIVersion, j.Kind, len(j.Spec.Template.Spec.Containers))
		}
	}
	s := bench.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil {
		t.Fatalf("the bench Job is not Indexed with completions and parallelism: %+v", s)
	}
	cmd := strings.Join(s.Template.Spec.Containers[0].Args, " ")
	shards := "/" + itoa(int(*s.Completions))
	for _, want := range []string{"--shard", "${JOB_COMPLETION_INDEX}" + shards, "--resume", "bench --agent"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("the bench Job's command lacks %q: %s", want, cmd)
		}
	}
	if m := strings.Join(merge.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(m, "bench merge") {
		t.Errorf("the merge Job does not merge: %s", m)
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// TestSlurmScripts: the sbatch scripts parse, and a dry run of array
// task 2 runs shard 2 of 4 into its own resumable directory, then the
// merge joins every shard.
func TestSlurmScripts(t *testing.T) {
	for _, f := range []string{"slurm/bench.sbatch", "slurm/merge.sbatch"} {
		if out, err := exec.Command("bash", "-n", f).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", f, err, out)
		}
	}
	run := func(script string, env ...string) string {
		cmd := exec.Command("bash", script)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "DRY_RUN=1", "OUT=/shared/run1"}, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	got := run("slurm/bench.sbatch", "SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=4", "SLURM_CPUS_PER_TASK=8")
	for _, want := range []string{"bench --agent", "--shard 2/4", "--resume /shared/run1/shard-2", "-t 8"} {
		if !strings.Contains(got, want) {
			t.Errorf("bench.sbatch runs %q; lacks %q", got, want)
		}
	}
	if got := run("slurm/merge.sbatch"); !strings.Contains(got, "bench merge /shared/run1/shard-* --out /shared/run1/merged") {
		t.Errorf("merge.sbatch runs %q", got)
	}
}
