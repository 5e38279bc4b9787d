describe node kubeadm-node-1
