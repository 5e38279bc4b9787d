describe pod prometheus-server-0 -n monitoring
