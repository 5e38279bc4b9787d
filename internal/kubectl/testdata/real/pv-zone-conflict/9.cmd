describe statefulset prometheus-server -n monitoring
