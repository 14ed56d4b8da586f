package org.gargamel.tpcc.cli;

public final class GargamelMain {
    public static void main(String[] args) {
        System.out.println("gargamel");
    }
}
