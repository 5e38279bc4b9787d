get pods -n research
