describe node gke-train-gpu-t4-7b2e90d1-2mqs
