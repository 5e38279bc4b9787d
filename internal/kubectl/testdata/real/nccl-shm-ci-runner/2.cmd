get pods -n arc-runners -o wide
