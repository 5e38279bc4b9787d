get events -n events
