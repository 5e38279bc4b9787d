get events -n monitoring
