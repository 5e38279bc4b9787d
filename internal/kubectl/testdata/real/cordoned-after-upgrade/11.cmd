describe node k8s-worker-01
