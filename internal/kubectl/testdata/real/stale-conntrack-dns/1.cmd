get pods -n events
