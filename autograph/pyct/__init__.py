"""Python source code transformation core: annotations, names, CFG and analyses."""
