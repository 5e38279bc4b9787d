describe node gpu-t4-node-03
