describe deployment eval-harness -n notebooks
