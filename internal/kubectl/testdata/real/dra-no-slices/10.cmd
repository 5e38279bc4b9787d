describe node gpu-h100-a02
