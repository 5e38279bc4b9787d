get events -n arc-runners
