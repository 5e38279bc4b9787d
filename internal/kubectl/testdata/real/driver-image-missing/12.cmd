describe node gke-infer-gpu-pool-5c2f7a90-w8rd
