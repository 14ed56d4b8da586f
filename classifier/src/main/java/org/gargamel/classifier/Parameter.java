package org.gargamel.classifier;

/** A declared procedure parameter; {@code nullable} says whether a call may pass NULL for it. */
public record Parameter(String name, ParameterType type, boolean nullable) {}
