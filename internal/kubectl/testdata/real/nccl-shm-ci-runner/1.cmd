get pods -n arc-runners
