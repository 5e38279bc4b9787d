describe node gke-prod-gpu-l4-9a3e61c4-7vnx
