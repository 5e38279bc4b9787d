describe node talos-worker-2
