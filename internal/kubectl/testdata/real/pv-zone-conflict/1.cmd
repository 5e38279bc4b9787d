get pods -n monitoring
