describe node gke-ml-a100-pool-0b7d3f19-zq4c
