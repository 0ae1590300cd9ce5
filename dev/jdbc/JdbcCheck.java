import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * What DBeaver, DataGrip and Metabase do through the ClickHouse JDBC driver, against the platform's
 * ClickHouse HTTP interface: connect with the URL as given (the driver's defaults, compress=1
 * included), browse the schema through DatabaseMetaData, run a query and a prepared query, read
 * every system table a tool may read, and try writes. Run by
 * dev/src/clickhouse-http/jdbc.integration.test.ts with java's source launcher on the classpath of
 * dev/jdbc/pom.xml:
 *
 *   java -cp CLASSPATH JdbcCheck.java JDBC_URL KEY FORBIDDEN...
 *
 * Prints one line per check, `name<TAB>outcome`, for the test to compare as a whole; FORBIDDEN are
 * strings (another app's id and user ids) that no system table may contain.
 */
public class JdbcCheck {
  public static void main(String[] args) throws Exception {
    // The source launcher loads this file in its own class loader: register the driver explicitly.
    Class.forName("com.clickhouse.jdbc.Driver");
    Properties props = new Properties();
    props.setProperty("user", "analyst");
    props.setProperty("password", args[1]);
    List<String> forbidden = List.of(args).subList(2, args.length);
    try (Connection c = DriverManager.getConnection(args[0], props)) {
      DatabaseMetaData md = c.getMetaData();
      line("product", md.getDatabaseProductName());
      line("schemas", column(md.getSchemas(), "TABLE_SCHEM"));
      line("tables", column(md.getTables(null, null, "%", null), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"));
      line("columns of events", column(md.getColumns(null, null, "events", "%"), "COLUMN_NAME", "TYPE_NAME"));
      line("primary key of events", column(md.getPrimaryKeys(null, null, "events"), "COLUMN_NAME"));
      line("type info has String", String.valueOf(column(md.getTypeInfo(), "TYPE_NAME").contains("String")));
      line("functions named count", column(md.getFunctions(null, null, "count"), "FUNCTION_NAME"));
      line("table types has TABLE", String.valueOf(column(md.getTableTypes(), "TABLE_TYPE").contains("TABLE")));
      try (Statement s = c.createStatement()) {
        line("query", column(s.executeQuery("SELECT user_id, name FROM events ORDER BY user_id, name"), "user_id", "name"));
      }
      try (PreparedStatement p = c.prepareStatement("SELECT user_id, name FROM events WHERE name = ? ORDER BY user_id")) {
        p.setString(1, "purchase");
        line("prepared query", column(p.executeQuery(), "user_id", "name"));
      }
      // Every system table the interface lets a key read (docs/analytics.md, "The schema, as tools browse it").
      for (String table : List.of("databases", "tables", "columns", "one", "functions", "data_type_families", "table_engines",
          "table_functions", "formats", "settings", "time_zones", "collations", "build_options")) {
        line("system." + table + " mentions another app", mentions(c, "SELECT * FROM system." + table, forbidden));
      }
      for (String sql : List.of(
          "SELECT * FROM system.parts",
          "SELECT * FROM system.processes",
          "SELECT * FROM system.query_log",
          "SELECT * FROM schema_migrations",
          "INSERT INTO events (app_id, event_id) VALUES ('x', 'y')",
          "ALTER TABLE events DELETE WHERE 1",
          "SET readonly = 0")) {
        line(sql, attempt(c, sql));
      }
    } catch (SQLException e) {
      StringBuilder why = new StringBuilder(e.getMessage());
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) why.append(" <- ").append(t.getMessage());
      System.out.println("failed\t" + why);
      System.exit(1);
    }
  }

  static void line(String name, String outcome) {
    System.out.println(name + "\t" + outcome);
  }

  /** The named columns of every row, `a b` per row, rows joined by `, `. */
  static String column(ResultSet rs, String... names) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (rs) {
      while (rs.next()) {
        List<String> values = new ArrayList<>();
        for (String n : names) values.add(rs.getString(n));
        rows.add(String.join(" ", values));
      }
    }
    return String.join(", ", rows);
  }

  /** `no (N rows)` when no value of any row contains a forbidden string, else the first one found. */
  static String mentions(Connection c, String sql, List<String> forbidden) throws SQLException {
    int rows = 0;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        rows++;
        for (int i = 1; i <= n; i++) {
          String v = rs.getString(i);
          for (String f : forbidden) if (v != null && v.contains(f)) return "yes: " + f + " in " + rs.getMetaData().getColumnName(i);
        }
      }
    }
    return rows > 0 ? "no" : "no rows";
  }

  /** The statement's outcome: `ok`, or the server's error code. */
  static String attempt(Connection c, String sql) {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
      // A SET may be kept by the driver for later queries: the next query shows what became of it.
      try (ResultSet rs = s.executeQuery("SELECT getSetting('readonly')")) {
        rs.next();
        return "ok, then readonly = " + rs.getString(1);
      }
    } catch (SQLException e) {
      return "refused " + e.getErrorCode();
    }
  }
}
