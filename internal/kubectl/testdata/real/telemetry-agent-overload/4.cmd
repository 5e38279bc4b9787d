get nodes
